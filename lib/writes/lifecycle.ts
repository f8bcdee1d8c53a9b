// Runs the collections' hooks and emits the router's events. Before hooks can change or veto a value; after
// hooks and event listeners run after commit, and their failures are logged, never answered. Every hook runs
// under the `hookTimeout`, with a signal that aborts when its time is up or its client has gone.
import { EventEmitter } from 'node:events'
import { ConfigError, ItemsError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { currentRequest } from '../request-state'
import { abandonedError } from '../execute/abandoned-work'
import type { Collection, Schema } from '../schema/collection'
import type { HookMeta, Hooks, ItemsEvent, ItemsEvents, Logger } from '../types'

const HOOK_NAMES: readonly (keyof Hooks)[] = [
  'beforeRead',
  'beforeCreate',
  'beforeUpdate',
  'beforeDelete',
  'afterCreate',
  'afterUpdate',
  'afterDelete',
]

type BeforeName = Extract<keyof Hooks, `before${string}`>
type ValueOf<N extends BeforeName> = Parameters<NonNullable<Hooks[N]>>[0]
type MetaOf<N extends BeforeName> = Parameters<NonNullable<Hooks[N]>>[1]

const AFTER: Readonly<Record<ItemsEvent['action'], 'afterCreate' | 'afterUpdate' | 'afterDelete'>> = {
  create: 'afterCreate',
  update: 'afterUpdate',
  delete: 'afterDelete',
}

/** Checks every collection's `hooks` once, at creation. */
export function buildHooks(schema: Schema, definitions: Readonly<Record<string, { hooks?: unknown }>>): ReadonlyMap<Collection, Hooks> {
  const hooks = new Map<Collection, Hooks>()
  for (const collection of schema.collections.values()) {
    const given = definitions[collection.name]?.hooks
    if (given === undefined) continue
    const where = `collections.${collection.name}.hooks`
    if (!isPlainObject(given)) throw new ConfigError('CONFIG_BAD_HOOK', `${where} must be an object of functions`)
    for (const [name, hook] of Object.entries(given)) {
      if (!HOOK_NAMES.includes(name as keyof Hooks))
        throw new ConfigError('CONFIG_BAD_HOOK', `${where}.${name} is not a hook (${HOOK_NAMES.join(', ')})`)
      if (typeof hook !== 'function') throw new ConfigError('CONFIG_BAD_HOOK', `${where}.${name} must be a function`)
    }
    hooks.set(collection, given as Hooks)
  }
  return hooks
}

export class Lifecycle {
  readonly events: ItemsEvents = new EventEmitter({ captureRejections: true })

  constructor(
    private readonly hooks: ReadonlyMap<Collection, Hooks>,
    private readonly logger: Logger,
    private readonly hookTimeout: number,
  ) {
    // An async listener that rejects lands here (captureRejections) instead of crashing the process.
    this.events.on('error', (error: unknown) => this.logger.error('express-items-router: an event listener failed', error))
  }

  /** Whether the collection has this hook. */
  has(collection: Collection, name: keyof Hooks): boolean {
    return this.hooks.get(collection)?.[name] !== undefined
  }

  /** Runs the collection's before hook, if any: its answer replaces `value` unless it is undefined. */
  async before<N extends BeforeName>(
    collection: Collection,
    name: N,
    value: ValueOf<N>,
    meta: Omit<MetaOf<N>, 'signal'>,
  ): Promise<ValueOf<N>> {
    const hook = this.hooks.get(collection)?.[name] as ((value: ValueOf<N>, meta: HookMeta) => unknown) | undefined
    if (!hook) return value
    const changed = await this.bounded(collection, name, true, (signal) => hook(value, { ...meta, signal } as HookMeta))
    return changed === undefined ? value : (changed as ValueOf<N>)
  }

  /**
   * After commit: the after hook, then `items.<action>` and `<collection>.items.<action>`. Never throws. The
   * event is built only when a hook or a listener will see it: a large batch's payloads are not copied for
   * nobody.
   */
  after(collection: Collection, action: ItemsEvent['action'], describe: () => ItemsEvent): Promise<void> | null {
    const hook = this.hooks.get(collection)?.[AFTER[action]]
    const names = [`items.${action}`, `${collection.name}.items.${action}`]
    // Null rather than a settled promise: most writes have neither, and await nothing (see is-promise-like.ts).
    if (hook === undefined && names.every((name) => this.events.listenerCount(name) === 0)) return null
    return this.runAfter(collection, action, hook, names, describe())
  }

  private async runAfter(
    collection: Collection,
    action: ItemsEvent['action'],
    hook: Hooks['afterCreate' | 'afterUpdate' | 'afterDelete'],
    names: readonly string[],
    event: ItemsEvent,
  ): Promise<void> {
    try {
      if (hook) await this.bounded(collection, AFTER[action], false, (signal) => hook(event, { signal }))
    } catch (error) {
      this.logger.error(`express-items-router: the ${AFTER[action]} hook of "${collection.name}" failed`, error)
    }
    for (const name of names) this.emitIsolated(name, event)
  }

  /**
   * Calls each listener of `name` on its own, unlike `emit()`, which stops at the first one that throws: a
   * failing listener (sync or async) is logged and the others still run. `rawListeners` keeps `once` working.
   */
  private emitIsolated(name: string, event: ItemsEvent): void {
    for (const listener of this.events.rawListeners(name) as Array<(event: ItemsEvent) => unknown>) {
      const failed = (error: unknown): void => this.logger.error(`express-items-router: a listener of "${name}" failed`, error)
      try {
        const result = listener.call(this.events, event)
        if (typeof (result as PromiseLike<unknown> | null)?.then === 'function') (result as PromiseLike<unknown>).then(undefined, failed)
      } catch (error) {
        failed(error)
      }
    }
  }

  /**
   * Runs a hook until it settles or its time is up. On timeout its signal aborts, and this throws 504
   * `HOOK_TIMEOUT`. With `endsRequest` (a before hook, inside the write's transaction) the request's signal aborts
   * too, which cancels the request's running statements, so the rollback does not queue behind them. An after hook
   * runs after commit, and the request still has its answer to read: cancelling its statements then would cut
   * that read short. A before hook whose client went away ends the same way, with that client's error (see
   * abandoned-work.ts). The hook itself cannot be stopped; the router only stops waiting for it.
   */
  private async bounded<T>(
    collection: Collection,
    name: keyof Hooks,
    endsRequest: boolean,
    run: (signal: AbortSignal) => T,
  ): Promise<Awaited<T>> {
    const request = currentRequest()
    const controller = new AbortController()
    const forward = (): void => controller.abort(request?.signal.reason)
    if (request?.signal.aborted) forward()
    else request?.signal.addEventListener('abort', forward, { once: true })
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<never>((_resolve, reject) => {
      if (this.hookTimeout === 0) return
      timer = setTimeout(() => {
        const error = new ItemsError(
          'HOOK_TIMEOUT',
          `The ${name} hook of "${collection.name}" did not finish within ${this.hookTimeout} ms, so the request was stopped.`,
          { collection: collection.name, hook: name },
        )
        controller.abort(error)
        if (endsRequest) request?.abort(error)
        reject(error)
      }, this.hookTimeout)
    })
    // A client that went away stops the wait for a before hook too, so the write rolls back and gives back its
    // connection. An after hook holds none, and its end is logged: it runs on.
    let leave: (() => void) | undefined
    const abandoned = new Promise<never>((_resolve, reject) => {
      if (request === undefined || !endsRequest) return
      leave = () => reject(abandonedError(request))
      if (request.aborted) leave()
      else request.signal.addEventListener('abort', leave, { once: true })
    })
    try {
      return await Promise.race([Promise.resolve().then(() => run(controller.signal)), timedOut, abandoned])
    } finally {
      clearTimeout(timer)
      request?.signal.removeEventListener('abort', forward)
      if (leave) request?.signal.removeEventListener('abort', leave)
    }
  }
}
