/** Text as HTML shows it: the five characters markup gives a meaning of their own, as entities. */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const htmlEscape = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
