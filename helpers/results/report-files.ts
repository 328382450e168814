/** File names inside the report directory. */
export const REPORT_FILES = {
  json: 'result.json',
  junit: 'junit.xml',
  html: 'report.html',
  har: 'exchanges.har',
} as const;

export const CERTIFICATION_DIR = 'certification';
/** The certification bundle's own files, beside copies of result.json, junit.xml and report.html. */
export const BUNDLE_FILES = { product: 'PRODUCT.json', summary: 'SUMMARY.md' } as const;

/** The run journal, in the report directory: what the run changed, for clean-up and for the record. */
export const JOURNAL_FILE = 'run-journal.jsonl';
/** Every request the run sent, whoever sent it (see WireEntry): what the HAR and the count are made from. */
export const REQUEST_LOG_FILE = 'requests.jsonl';
