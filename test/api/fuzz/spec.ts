/** The fuzzed routes and the statuses the spec allows for them (spec sections 4, 7.1). */

// ---------------------------------------------------------------------------------------------------------------
// Routes and what the spec allows for them
// ---------------------------------------------------------------------------------------------------------------

export type RouteName =
  | 'login'
  | 'logout'
  | 'users'
  | 'user'
  | 'whitelist'
  | 'map'
  | 'mapKey'
  | 'transactions'
  | 'summary'
  | 'active'
  | 'systemState'
  | 'messages'
  | 'settings'
  | 'appSettings'
  | 'appDashboard'
  | 'pairing';

export interface Route {
  /** Callable without a session (spec 5 item 1). */
  public?: boolean;
  /** Per supported method: the statuses section 4 lists, plus 400 (7.1: malformed request or query). */
  methods: Partial<Record<string, readonly number[]>>;
}

export const ROUTES: Record<RouteName, Route> = {
  login: { public: true, methods: { GET: [200, 400], POST: [200, 400, 401] } },
  logout: { methods: { POST: [204, 400] } },
  users: { methods: { GET: [200, 400], POST: [201, 400] } },
  user: { methods: { GET: [200, 400, 404], PATCH: [200, 400, 404], DELETE: [204, 400, 404] } },
  whitelist: { methods: { GET: [200, 400], POST: [200, 400, 404], DELETE: [204, 400, 404] } },
  map: { methods: { GET: [200, 400], POST: [201, 400, 409], PATCH: [200, 400, 404] } },
  mapKey: { methods: { GET: [200, 400, 404], DELETE: [204, 400, 404] } },
  transactions: { methods: { GET: [200, 400] } },
  summary: { methods: { GET: [200, 400] } },
  active: { methods: { GET: [200, 204, 400] } },
  systemState: { methods: { GET: [200, 400] } },
  messages: { methods: { GET: [200, 400] } },
  settings: { methods: { GET: [200, 400, 404], POST: [200, 400], PATCH: [200, 400] } },
  appSettings: { methods: { GET: [200, 400] } },
  appDashboard: { methods: { GET: [200, 400] } },
  pairing: { methods: { GET: [200, 500], POST: [200, 500] } },
};

/** Methods sent to known paths: the API's own, the unsupported usual ones, and a few WebDAV ones Node accepts. */
export const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'HEAD', 'PROPFIND', 'COPY', 'PURGE'] as const;
export const READ_ONLY = new Set(['GET', 'HEAD']);

/** Session error codes of spec 7.2. */
export const SESSION_CODES = [0, ...Array.from({ length: 15 }, (_, i) => 1001 + i)];

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const SYSTEM_STATE_VALUES: Record<string, readonly string[]> = {
  systemState: ['idle', 'connected', 'wait_for_auth', 'charging', 'charging_pause', 'finished', 'unavailable', 'error'],
  connectionState: [
    'no_vehicle_connected',
    'vehicle_connected_schuko',
    'vehicle_charging_schuko',
    'vehicle_connected_type2',
    'vehicle_charging_type2',
    'vehicle_connector_error',
  ],
  authState: ['not_authorized_for_charging', 'wait_for_auth', 'authorized_for_charging', 'auth_timeout'],
  ocppState: ['available', 'occupied', 'reserved', 'unavailable', 'faulted', 'preparing', 'charging', 'suspendedevse', 'suspendedev', 'finishing'],
  type2State: ['a', 'b', 'c', 'd', 'e'],
};

/** Statuses the spec allows for `method` on `route` (undefined: a path that is no endpoint). */
export function allowedStatuses(route: RouteName | undefined, method: string, authed: boolean): readonly number[] {
  if (route === undefined) return authed ? [400, 404] : [401, 404];
  const r = ROUTES[route];
  if (!authed && !r.public) return [401];
  // 7.1 has no 405: an unsupported method is a malformed request (400) or no such endpoint (404).
  return r.methods[method === 'HEAD' ? 'GET' : method] ?? [400, 404];
}
