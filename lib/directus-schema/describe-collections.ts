// Builds Directus's collection answers (/collections) from the router's collections.
import type { Collection } from '../schema/collection'
import type { DirectusCollection, Json } from './directus-shapes'

/** The Directus-app keys of a collection's `meta`, with the values a new collection gets in Directus. */
const APP_ONLY: Readonly<Record<string, Json>> = {
  icon: null,
  note: null,
  display_template: null,
  hidden: false,
  translations: null,
  archive_field: null,
  archive_app_filter: true,
  archive_value: null,
  unarchive_value: null,
  color: null,
  item_duplication_fields: null,
  sort: null,
  group: null,
  collapse: 'open',
  preview_url: null,
  status: null,
  autosave_revision_interval: null,
}

export function describeCollection(collection: Collection): DirectusCollection {
  return {
    collection: collection.name,
    meta: {
      collection: collection.name,
      // The keys that change what /items does, as the router serves it.
      singleton: collection.singleton,
      versioning: collection.versioning,
      // No manual sort field: lists come back in primary-key order unless asked otherwise.
      sort_field: null,
      // The router keeps no activity or revisions log.
      accountability: null,
      ...APP_ONLY,
    },
    schema: { name: collection.table },
  }
}
