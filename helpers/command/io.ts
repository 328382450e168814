/** Where the command writes: the process's streams, or a test's capture (the matrices run in process). */
export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface Io {
  stdout: Output;
  stderr: Output;
}

export const processIo: Io = { stdout: process.stdout, stderr: process.stderr };
