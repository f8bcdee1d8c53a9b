// Every spec request of a kept statement shape is also compiled afresh, and a kept plan that gives other SQL or
// other values fails the request: the whole suite checks the plan cache's shapes (lib/repository/statement-plans.ts).
import { checkEveryPlan } from '../../lib/repository/statement-plans'

checkEveryPlan(true)
