/** Share 4 of the fault matrix (test/support/fault-matrix.ts), a file of its own to run in parallel. */
import { faultMatrix } from './support/fault-matrix.ts';

faultMatrix(import.meta.filename);
