import { API_PREFIX } from '@crm/contracts';
import { FILES_PATH } from '@crm/storage';
import { requireJsonBodies } from '@crm/service-kit';
import type { NextFunction, Request, Response } from 'express';
import type { RouteTable } from '../routing/route-table';
import { isMultipart } from './multipart-upload';

/**
 * JSON bodies everywhere (415 otherwise), except multipart/form-data where a file is expected: an
 * API route declared with `upload`, and the local driver's form target (POST /files). The upload
 * pipeline reads those bodies as streams.
 */
export function jsonOrUploadBodies(routes: RouteTable) {
  const json = requireJsonBodies();
  return (req: Request, res: Response, next: NextFunction): void => {
    if (isMultipart(req) && takesFile(routes, req)) return next();
    json(req, res, next);
  };
}

function takesFile(routes: RouteTable, req: Request): boolean {
  if (req.path === FILES_PATH && req.method === 'POST') return true;
  if (!req.path.startsWith(`${API_PREFIX}/`)) return false;
  const resolved = routes.resolve(req.method, req.path.slice(API_PREFIX.length));
  return resolved.kind === 'match' && resolved.route.upload !== undefined;
}
