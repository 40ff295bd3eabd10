import { Body, Controller, Post, Res, UseGuards } from '@nestjs/common';
import { parseContract } from '@crm/contracts';
import type { Response } from 'express';
import { OperatorGuard } from '../operator/operator.guard';
import { RegisterClientRequest } from './dto/register-client.request';
import { InvalidRedirectUriError, OAuthClientsService } from './oauth-clients.service';

/** Client registration "done by the operator". */
@Controller('operator/clients')
@UseGuards(OperatorGuard)
export class OperatorClientsController {
  constructor(private readonly clients: OAuthClientsService) {}

  @Post()
  async register(@Body() body: unknown, @Res() res: Response): Promise<void> {
    try {
      res.status(201).json(await this.clients.register(parseContract(RegisterClientRequest, body)));
    } catch (error) {
      if (!(error instanceof InvalidRedirectUriError)) throw error;
      res.status(400).json({ error: 'invalid_redirect_uri', error_description: error.message });
    }
  }
}
