import type { NextFunction, Request, Response } from 'express';

/** The pages' policy; formAction lists where a form submission (and its redirects) may go. */
export function contentSecurityPolicy(formAction: string[] = ["'self'"]): string {
  return `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction.join(' ')}; frame-ancestors 'none'; base-uri 'none'`;
}

/** Security headers for every auth-server response; the pages use only inline styles. */
export function securityHeaders() {
  return (_req: Request, res: Response, next: NextFunction): void => {
    res.setHeader('Content-Security-Policy', contentSecurityPolicy());
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    next();
  };
}
