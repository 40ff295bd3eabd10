import { API_ROUTES, type HttpMethod, type RouteDeclaration } from '@crm/contracts';

export type RouteResolution =
  | { kind: 'match'; route: RouteDeclaration; params: Record<string, string> }
  | { kind: 'not_found' }
  | { kind: 'method_not_allowed'; allowed: HttpMethod[] };

interface CompiledRoute {
  route: RouteDeclaration;
  pattern: RegExp;
  names: string[];
}

function compile(route: RouteDeclaration): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{([a-z_]+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), names };
}

/**
 * Matches an API path to its declaration. The optional `.json` suffix of the last segment is
 * handled here, once, for every route. A path that exists with other methods is 405, else 404.
 */
export class RouteTable {
  private readonly routes: CompiledRoute[];

  constructor(routes: readonly RouteDeclaration[] = API_ROUTES) {
    this.routes = routes.map(compile);
  }

  resolve(method: string, path: string): RouteResolution {
    const normalized = (path.length > 1 ? path.replace(/\/+$/, '') : path).replace(/\.json$/, '');
    const allowed: HttpMethod[] = [];
    // HEAD is GET without a body (RFC 9110 9.3.2); Node's HTTP server drops the body itself.
    const wanted = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    for (const { route, pattern, names } of this.routes) {
      const match = pattern.exec(normalized);
      if (!match) continue;
      if (route.method !== wanted) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      names.forEach((name, i) => {
        params[name] = safeDecode(match[i + 1]);
      });
      return { kind: 'match', route, params };
    }
    return allowed.length > 0 ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
