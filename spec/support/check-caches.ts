// Every spec request that hits one of the router's caches (a kept statement template, a parsed query) also computes
// the entry afresh, and a difference fails the request: the whole suite checks the caches' keys.
import { checkCaches } from '../../lib/cache-checks'

checkCaches(true)
