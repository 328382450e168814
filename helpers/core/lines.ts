import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Every line of a file of JSON lines, read a chunk at a time (a character cut between two chunks is decoded whole). */
export function eachLine(file: string, line: (text: string) => void): void {
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.alloc(1 << 20);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0; ) {
      const lines = (rest + decoder.write(chunk.subarray(0, n))).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) if (l) line(l);
    }
    rest += decoder.end();
    if (rest) line(rest);
  } finally {
    closeSync(fd);
  }
}
