// The JSON form of a spatial value: a GeoJSON geometry (RFC 7946, section 3.1) of two-dimensional positions,
// turned into and read from WKB (OGC well-known binary) by the router itself, so that MySQL's and MariaDB's
// differing GeoJSON functions play no part.

/** The GeoJSON geometry types and their WKB codes. */
const CODES = {
  Point: 1,
  LineString: 2,
  Polygon: 3,
  MultiPoint: 4,
  MultiLineString: 5,
  MultiPolygon: 6,
  GeometryCollection: 7,
} as const
type GeometryType = keyof typeof CODES
const TYPES = Object.fromEntries(Object.entries(CODES).map(([name, code]) => [code, name])) as Record<number, GeometryType>

/** Nesting that GeometryCollections may reach: bounds the walk over a payload. */
const MAX_COLLECTION_DEPTH = 8

type Position = [number, number]
export interface Geometry {
  readonly type: GeometryType
  readonly coordinates?: unknown
  readonly geometries?: readonly Geometry[]
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const isPosition = (value: unknown): value is Position =>
  Array.isArray(value) && value.length === 2 && value.every((number) => typeof number === 'number' && Number.isFinite(number))
const positions = (value: unknown, least: number): value is Position[] =>
  Array.isArray(value) && value.length >= least && value.every(isPosition)
/** A closed ring of at least four positions, as MySQL and MariaDB require. */
const isRing = (value: unknown): value is Position[] =>
  positions(value, 4) && value[0]![0] === value.at(-1)![0] && value[0]![1] === value.at(-1)![1]
const every = (value: unknown, test: (each: unknown) => boolean, least = 1): boolean =>
  Array.isArray(value) && value.length >= least && value.every(test)

const COORDINATES: Readonly<Record<Exclude<GeometryType, 'GeometryCollection'>, (value: unknown) => boolean>> = {
  Point: isPosition,
  LineString: (value) => positions(value, 2),
  Polygon: (value) => every(value, isRing),
  MultiPoint: (value) => every(value, isPosition),
  MultiLineString: (value) => every(value, (line) => positions(line, 2)),
  MultiPolygon: (value) => every(value, (polygon) => every(polygon, isRing)),
}

/** What is wrong with `value` as a GeoJSON geometry the router stores, or null. */
export function geometryProblem(value: unknown, depth = 0): string | null {
  if (!isObject(value) || typeof value.type !== 'string' || !Object.hasOwn(CODES, value.type)) {
    return `must be a GeoJSON geometry (${Object.keys(CODES).join(', ')})`
  }
  if (value.type === 'GeometryCollection') {
    if (depth >= MAX_COLLECTION_DEPTH) return `nests GeometryCollections deeper than ${MAX_COLLECTION_DEPTH}`
    if (!Array.isArray(value.geometries)) return 'must hold "geometries", a list'
    for (const each of value.geometries) {
      const problem = geometryProblem(each, depth + 1)
      if (problem !== null) return problem
    }
    return null
  }
  return COORDINATES[value.type as Exclude<GeometryType, 'GeometryCollection'>](value.coordinates)
    ? null
    : `has no valid "coordinates" for a ${value.type} (two finite numbers per position; lines of two positions or more; closed rings of four or more)`
}

/** WKB (little-endian) of a valid geometry. */
function writeWkb(geometry: Geometry, out: number[][]): void {
  const header = Buffer.alloc(5)
  header.writeUInt8(1, 0)
  header.writeUInt32LE(CODES[geometry.type], 1)
  out.push([...header])
  const count = (n: number): void => {
    const buffer = Buffer.alloc(4)
    buffer.writeUInt32LE(n, 0)
    out.push([...buffer])
  }
  const point = ([x, y]: Position): void => {
    const buffer = Buffer.alloc(16)
    buffer.writeDoubleLE(x, 0)
    buffer.writeDoubleLE(y, 8)
    out.push([...buffer])
  }
  const line = (list: Position[]): void => {
    count(list.length)
    list.forEach(point)
  }
  const polygon = (rings: Position[][]): void => {
    count(rings.length)
    rings.forEach(line)
  }
  const coordinates = geometry.coordinates
  switch (geometry.type) {
    case 'Point':
      return point(coordinates as Position)
    case 'LineString':
      return line(coordinates as Position[])
    case 'Polygon':
      return polygon(coordinates as Position[][])
    case 'MultiPoint':
      count((coordinates as Position[]).length)
      return (coordinates as Position[]).forEach((each) => writeWkb({ type: 'Point', coordinates: each }, out))
    case 'MultiLineString':
      count((coordinates as Position[][]).length)
      return (coordinates as Position[][]).forEach((each) => writeWkb({ type: 'LineString', coordinates: each }, out))
    case 'MultiPolygon':
      count((coordinates as Position[][][]).length)
      return (coordinates as Position[][][]).forEach((each) => writeWkb({ type: 'Polygon', coordinates: each }, out))
    case 'GeometryCollection':
      count(geometry.geometries!.length)
      return geometry.geometries!.forEach((each) => writeWkb(each, out))
  }
}

/** WKB of a valid GeoJSON geometry. */
export function geometryToWkb(geometry: Geometry): Buffer {
  const out: number[][] = []
  writeWkb(geometry, out)
  return Buffer.from(out.flat())
}

/** MySQL's and MariaDB's own storage form: the SRID (4 bytes, little-endian) before the WKB. */
export const geometryToStorage = (geometry: Geometry, srid = 0): Buffer => {
  const prefix = Buffer.alloc(4)
  prefix.writeUInt32LE(srid, 0)
  return Buffer.concat([prefix, geometryToWkb(geometry)])
}

/** A GeoJSON geometry from WKB (either byte order), as `ST_AsBinary` answers it. */
export function wkbToGeometry(wkb: Uint8Array): Geometry {
  const buffer = Buffer.from(wkb.buffer, wkb.byteOffset, wkb.byteLength)
  let offset = 0
  const read = (): Geometry => {
    const little = buffer.readUInt8(offset) === 1
    const uint = (): number => {
      const value = little ? buffer.readUInt32LE(offset) : buffer.readUInt32BE(offset)
      offset += 4
      return value
    }
    const double = (): number => {
      const value = little ? buffer.readDoubleLE(offset) : buffer.readDoubleBE(offset)
      offset += 8
      return value
    }
    offset += 1
    const type = TYPES[uint() % 1000]
    const point = (): Position => [double(), double()]
    const list = <T>(each: () => T): T[] => Array.from({ length: uint() }, each)
    switch (type) {
      case 'Point':
        return { type, coordinates: point() }
      case 'LineString':
        return { type, coordinates: list(point) }
      case 'Polygon':
        return { type, coordinates: list(() => list(point)) }
      case 'MultiPoint':
      case 'MultiLineString':
      case 'MultiPolygon':
        return { type, coordinates: list(() => read().coordinates) }
      case 'GeometryCollection':
        return { type, geometries: list(read) }
      default:
        throw new Error('Unknown WKB geometry type')
    }
  }
  return read()
}
