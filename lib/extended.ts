// `{ ...base, ...added }` for objects made on every request or parse, whose keys are the router's own (options,
// query nodes, metadata): never an item or a payload, since Object.assign sets a `__proto__` key where a spread
// defines it.
//
// V8 (Node 20) copies an object spread in one fast step only while the new object gains no property the copied
// one lacks; a property added after the spread sends the whole copy down a slow path, which also gives each copy
// a hidden class of its own, so that every property access meeting such objects later turns megamorphic. The
// parsers extend their options and terms this way on every request: weigh a change here with `npm run bench:ab`
// on a list URL.
export function extended<Base extends object, Added extends object>(base: Base, added: Added): Base & Added {
  return Object.assign({}, base, added)
}
