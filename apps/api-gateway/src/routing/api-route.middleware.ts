import { Injectable, type NestMiddleware } from '@nestjs/common';
import { API_PREFIX, ApiError, ErrorName, type RouteDeclaration } from '@crm/contracts';
import type { NextFunction, Request, Response } from 'express';
import { GatewayConfig } from '../config/gateway.config';
import { routeNotFoundMessage } from './gateway-exception.filter';
import { RouteTable } from './route-table';

export interface ResolvedRoute {
  route: RouteDeclaration;
  params: Record<string, string>;
}

/** Served by DocsController without credentials, for GET (and HEAD) only: the index, the document, the reference and its files. */
const PUBLIC_PATHS = new Set(['', '/', '/openapi.json', '/docs']);
const isPublicPath = (path: string) => PUBLIC_PATHS.has(path) || /^\/docs\/[\w.-]+$/.test(path);
const PUBLIC_METHODS = new Set(['GET', 'HEAD']);

export type ApiRequest = Request & { apiRoute?: ResolvedRoute };

/** Resolves the API route before authentication: unknown path 404, wrong method 405. */
@Injectable()
export class ApiRouteMiddleware implements NestMiddleware {
  private readonly notFound: string;

  constructor(
    private readonly table: RouteTable,
    config: GatewayConfig,
  ) {
    this.notFound = routeNotFoundMessage(config);
  }

  use(req: ApiRequest, res: Response, next: NextFunction): void {
    const path = req.path.startsWith(API_PREFIX) ? req.path.slice(API_PREFIX.length) : req.path;
    if (isPublicPath(path)) {
      if (PUBLIC_METHODS.has(req.method.toUpperCase())) return next();
      res.setHeader('Allow', 'GET');
      throw new ApiError(ErrorName.MethodNotAllowed, `Method ${req.method} is not allowed here; allowed: GET`);
    }
    const result = this.table.resolve(req.method, path || '/');
    if (result.kind === 'not_found') throw new ApiError(ErrorName.ResourceNotFound, this.notFound);
    if (result.kind === 'method_not_allowed') {
      res.setHeader('Allow', result.allowed.join(', '));
      throw new ApiError(ErrorName.MethodNotAllowed, `Method ${req.method} is not allowed here; allowed: ${result.allowed.join(', ')}`);
    }
    req.apiRoute = { route: result.route, params: result.params };
    next();
  }
}
