import { All, Controller, Res } from '@nestjs/common';
import type { Response } from 'express';

/** Advertised in discovery, closed: clients are approved by the operator. */
@Controller('oauth')
export class RegistrationController {
  @All('register')
  register(@Res() res: Response): void {
    res.status(403).json({ error: 'access_denied', error_description: 'registration is closed' });
  }
}
