// MySQL / MariaDB spatial columns: read as WKB (the field type makes GeoJSON of it), compared with geometries
// bound as WKB in the column's own SRID, so no GeoJSON function of either server is involved.
import type { SpatialSupport } from '../dialect'

export const mysqlSpatial: SpatialSupport = {
  select: (column) => ({ sql: 'ST_AsBinary(??)', bindings: [column] }),
  // A NULL geometry intersects nothing and is no match for the negation either.
  intersects: ({ sql, bindings }, wkb, negate, bbox) => {
    const test = bbox ? 'MBRIntersects' : 'ST_Intersects'
    const other = `ST_GeomFromWKB(?, ST_SRID(${sql}))`
    return {
      sql: negate ? `(${sql} is not null and not ${test}(${sql}, ${other}))` : `${test}(${sql}, ${other})`,
      bindings: negate ? [...bindings, ...bindings, wkb, ...bindings] : [...bindings, wkb, ...bindings],
    }
  },
}
