import { requireKey } from './auth.ts';
import { error, isObject, json, type RefContext, type RefRequest, type Route } from './types.ts';

const NULLABLE_STRINGS = [
  'phoneNumber', 'address', 'websiteUrl', 'termsAndConditionsUrl', 'privacyPolicyUrl',
  'instagramUrl', 'tikTokUrl', 'youTubeUrl', 'twitterUrl', 'linkedInUrl', 'facebookUrl',
];
const URL_FIELDS = NULLABLE_STRINGS.filter((f) => f.endsWith('Url'));

/** The documented update fields and a validator for each (section 2). */
function fieldRules(ctx: RefContext): Record<string, (v: unknown) => boolean> {
  const isString = (v: unknown) => typeof v === 'string';
  const strict = ctx.varies('strict-validation');
  const rules: Record<string, (v: unknown) => boolean> = {
    name: isString,
    [ctx.state.emailField]: (v) => isString(v) && (!strict || /^[^@\s]+@[^@\s]+$/.test(v as string)),
    currencyIso: (v) => isString(v) && (!strict || Intl.supportedValuesOf('currency').includes(v as string)),
    timeZone: (v) => isString(v) && (!strict || Intl.supportedValuesOf('timeZone').includes(v as string)),
    businessHours: (v) => Array.isArray(v) && v.every(isObject),
    useGdprCompliance: (v) => typeof v === 'boolean',
  };
  for (const f of NULLABLE_STRINGS) {
    rules[f] = (v) => v === null || (isString(v) && (!strict || !URL_FIELDS.includes(f) || /^https?:\/\/[^\s/]+/.test(v as string)));
  }
  return rules;
}

function retrieve(req: RefRequest, ctx: RefContext) {
  return requireKey(req, ctx) ?? json(200, ctx.state.business);
}

function update(req: RefRequest, ctx: RefContext) {
  const denied = requireKey(req, ctx);
  if (denied) return denied;
  if (!isObject(req.body)) return error(400, 'invalid_body', 'The body must be a JSON object');
  const rules = fieldRules(ctx);
  const changes: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(req.body)) {
    const valid = rules[field];
    if (!valid) {
      if (ctx.varies('strict-validation')) return error(422, 'unknown_field', `Unknown field ${field}`);
      continue;
    }
    if (!valid(value)) return error(422, 'invalid_value', `Invalid value for ${field}`);
    changes[field] = value;
  }
  ctx.state.business = { ...ctx.state.business, ...structuredClone(changes) };
  return json(200, ctx.state.business);
}

export const businessRoutes: Route[] = [
  { operationId: 'retrieveBusiness', method: 'GET', path: '/api/v1/business', handler: retrieve },
  { operationId: 'updateBusiness', method: 'PATCH', path: '/api/v1/business', handler: update },
];
