import type { Fault } from './fault.ts';

/**
 * First contact, round 4 (FIRST-CONTACT-4.md): the faults a helper wrote from the contract alone
 * that the suite now catches by a property, each with the checks it kills. The round's others
 * stay on branch fc14, measured there.
 */
export const firstContact4Faults: Fault[] = [
  {
    // §4 Business endpoints: "The update sends a JSON body, and the fields in it are changed"; Retrieve is
    // "the business": the value sent, not an escaped form of it, and no read changes what was stored.
    name: 'business-escaped-on-read',
    description: 'The retrieval HTML-escapes the business\'s strings (& < > " \') and the dirty-checked record is saved with them: a name sent as "Smith & Sons" reads "Smith &amp; Sons", then "Smith &amp;amp; Sons" at the next retrieval, one more escape at each; the update\'s answer shows what it stored.',
    // Each retrieval escapes once more: every later read of the business differs, so each check that compares two reads fails after the first escape.
    kills: ['BUS-UPDATE-APPLIES:name', 'BUS-UPDATE-APPLIES:address', 'BUS-UPDATE-PARTIAL:*', 'BUS-UPDATE-MEDIA-TYPE', 'BUS-UPDATE-WRITEBACK', 'BUS-UPDATE-NULLABLE:address'],
    firstContact: { round: '2026-11-29 (round 4)', outcome: 'wrong', verdict: 'exit 0 CONFORMANT (seeds 1 and 2, exploration on)', note: 'No text the suite sent held & < > " \' (its business text carried accents, Greek, CJK and an astral character). After (the suite\'s free text carries <&> "\'\\ % too; a value moving at a read to one still carrying the run\'s marker is the target\'s doing, not another writer\'s): exit 1 on both seeds, BUS-UPDATE-APPLIES:name "reads back \"… &lt;&amp;&gt; &quot;&#39;\\ % …\"".' },
  },
];
