// For the specs: the router's caches (statement templates, parsed queries) check every hit against what computing it
// afresh gives, and throw on a difference, so the whole suite proves their keys hold everything that matters.
let checking = false

export function checkCaches(on: boolean): void {
  checking = on
}

export const checkingCaches = (): boolean => checking
