/** Where the command writes: the process's streams, or a test's capture (the matrices run in process). */
export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}
