/** Share 2 of the variation matrix (test/support/variation-matrix.ts), a file of its own to run in parallel. */
import { variationMatrix } from './support/variation-matrix.ts';

variationMatrix(import.meta.filename);
