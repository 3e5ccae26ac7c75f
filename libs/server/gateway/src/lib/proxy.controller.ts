import { All, Controller, Req, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import { Public, SkipOriginCheck } from '@arrbiter/server/auth';
import type { Request, Response } from 'express';
import { allowedOf } from './proxy-context';
import { ProxyGuard } from './proxy.guard';
import { ProxyInterceptor } from './proxy.interceptor';
import { ForwardOutcome, UpstreamForwarder } from './upstream-forwarder';

/**
 * `/proxy/{appSlug}/{upstreamPath}`, any method. Proxy keys are its credential (not admin sessions,
 * not Origin checks); the guard decides, the interceptor times, the handler streams to the upstream.
 * The request body is never parsed here.
 */
@Public()
@SkipOriginCheck()
@Controller('proxy')
@UseGuards(ProxyGuard)
@UseInterceptors(ProxyInterceptor)
export class ProxyController {
  constructor(private readonly forwarder: UpstreamForwarder) {}

  @All([':appSlug', ':appSlug/*path'])
  forward(@Req() request: Request, @Res() response: Response): Promise<ForwardOutcome> {
    const allowed = allowedOf(request);
    return this.forwarder.forward(request, response, allowed.proxy.service, allowed.path, allowed.query);
  }
}
