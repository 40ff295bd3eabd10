import { FILES_PATH } from '@crm/storage';
import { requireJsonBodies } from '@crm/service-kit';
import { json, type NextFunction, type Request, type Response } from 'express';
import { isMultipart } from './multipart-upload';

/**
 * JSON bodies everywhere Express serves (415 otherwise), except multipart/form-data to the local
 * driver's form target (POST /files), which FilesController reads as a stream. API routes that
 * take a file are the API edge's (edge/api-edge.ts).
 */
export function jsonOrUploadBodies() {
  const json = requireJsonBodies();
  return (req: Request, res: Response, next: NextFunction): void => {
    if (isMultipart(req) && req.path === FILES_PATH && req.method === 'POST') return next();
    json(req, res, next);
  };
}

/** JSON bodies of at most 1 MiB, any JSON value (the pipeline refuses what is not an object); the same parser for Express and the API edge. */
export function jsonBodyParser() {
  return json({ limit: '1mb', strict: false });
}
