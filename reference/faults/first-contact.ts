import type { Fault } from './fault.ts';

/**
 * Red-team round 2026-11-29: contract breaches a real product might ship, written from the
 * contract alone before any check was aimed at them. `kills` stays empty until checks that catch
 * them exist; firstContact records how the suite judged each at first (FIRST-CONTACT.md).
 */
export const firstContactFaults: Fault[] = [
  {
    name: 'business-patch-charset-ignored',
    description: 'PATCH /api/v1/business with a Content-Type carrying a parameter ("application/json; charset=utf-8") answers 200 and applies nothing.',
    kills: [],
  },
  {
    name: 'customer-update-touches-business',
    description: 'Update Customer also writes the customer\'s first and last name into the business name (a shared "contact" row).',
    kills: [],
  },
  {
    name: 'business-hours-read-stale',
    description: 'The retrieval serves businessHours from a cache refreshed only when an update changes another field too: after an update of businessHours alone it shows the old ones.',
    kills: [],
  },
  {
    name: 'customer-delete-shifts',
    description: 'Customers are kept by position: deleting one moves every later customer\'s fields to the id before it, and the last id disappears.',
    kills: [],
  },
  {
    name: 'team-member-update-hits-customer',
    description: 'Update Team Member also applies the change to the customer at the same position (a shared people table keyed by row number).',
    kills: [],
  },
  {
    name: 'business-drops-non-ascii',
    description: 'PATCH /api/v1/business stores strings with their non-ASCII characters (accents, emoji) removed, and answers 200.',
    kills: [],
  },
  {
    name: 'business-null-clears-next',
    description: 'A null sent to a nullable business field also clears the nullable field after it (phoneNumber clears address, websiteUrl the terms URL, …).',
    kills: [],
  },
  {
    name: 'team-member-list-duplicates',
    description: 'List Team Members lists the first member twice (a join on its two roles).',
    kills: [],
  },
  {
    name: 'business-empty-body-resets',
    description: 'PATCH /api/v1/business with {} answers 200 and clears every nullable field and the business hours (an empty form taken as "clear all").',
    kills: [],
  },
  {
    name: 'business-wide-patch-misaligned',
    description: 'A business update of more than three fields pairs the values, in body order, with the field names sorted alphabetically: values land in other fields.',
    kills: [],
  },
];
