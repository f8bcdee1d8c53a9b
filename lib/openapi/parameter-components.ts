// The query parameters as OpenAPI parameter components, and the parameter list of each operation, read off the
// query parameter table (lib/query/query-parameters.ts).
import { QUERY_PARAMETER_NAMES, QUERY_PARAMETERS, type ParameterUse, type QueryParameterName } from '../query/query-parameters'

type Json = Record<string, unknown>

/** The OpenAPI form of a parameter whose value has `schema`. */
function parameter(name: QueryParameterName, schema: Json): Json {
  const { description, style } = QUERY_PARAMETERS[name]
  return { name, in: 'query', description, ...(style === undefined ? {} : { style, explode: true }), schema }
}

const parameterRef = (name: QueryParameterName): Json => ({ $ref: `#/components/parameters/${name}` })

/** The parameter components: `{ fields: { name: 'fields', in: 'query', ... }, ... }`; `filter` is typed per operation. */
export function parameterComponents(): Json {
  const components: Json = {}
  for (const name of QUERY_PARAMETER_NAMES) {
    const { schema } = QUERY_PARAMETERS[name]
    if (schema !== null) components[name] = parameter(name, schema)
  }
  return components
}

/** The query parameters of an operation that is `use`; `filter` typed by the collection's Filter schema. */
export function queryParameters(use: ParameterUse, filter: Json): Json[] {
  return QUERY_PARAMETER_NAMES.filter((name) => QUERY_PARAMETERS[name].usedBy.includes(use)).map((name) => {
    const { schema } = QUERY_PARAMETERS[name]
    return schema === null ? parameter(name, filter) : parameterRef(name)
  })
}
