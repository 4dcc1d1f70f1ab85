/**
 * Objects of a description keyed by numbers, such as `responses` ({ "200": …, "404": … }), hold their entries
 * as V8 "elements": an array as long as the largest key. A responses object with a 502 in it takes about 5 KB
 * where its half dozen entries need a few hundred bytes; at 2,770 operations that is 13 MB for as long as the
 * run lasts (the description is kept until the reports are written). Setting and deleting the largest array
 * index turns such an object's elements into a dictionary in place: the same object, keys and key order (index
 * keys always enumerate in ascending order), so nothing that reads the description can tell.
 */

/** Only objects whose largest index key is at least this are turned (a list keyed 0, 1, 2 is best as it is). */
const SPARSE_FROM = 64;
/** The largest array index. */
const LAST_INDEX = '4294967294';

/** Turns the number-keyed objects reachable from the roots into dictionaries (see the module comment); each object once. */
export function compactIndexKeys(...roots: unknown[]): void {
  const seen = new Set<object>();
  const stack: unknown[] = [...roots];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'object' && item !== null) stack.push(item);
      continue;
    }
    let largest = -1;
    for (const key in value) {
      // Index keys come first, in ascending order: the first other key ends them.
      if (!/^(?:0|[1-9]\d{0,9})$/.test(key)) break;
      largest = Number(key);
    }
    if (largest >= SPARSE_FROM && largest < Number(LAST_INDEX) && Object.isExtensible(value) && !Object.hasOwn(value, LAST_INDEX)) {
      const record = value as Record<string, unknown>;
      record[LAST_INDEX] = undefined;
      delete record[LAST_INDEX];
    }
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) stack.push(item);
    }
  }
}
