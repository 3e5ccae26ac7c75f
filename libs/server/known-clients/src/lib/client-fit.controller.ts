import { Body, Controller, Get, HttpCode, HttpStatus, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import type {
  ApplyFitResponse,
  ProxyFitResponse,
  TemplateFitResponse,
  TemplatesFitResponse,
} from '@arrbiter/contracts';
import { AdminPrincipal, CurrentAdmin, EditAccess, ReadAccess } from '@arrbiter/server/access';
import type { Response } from 'express';
import { ClientFitService } from './client-fit.service';
import { ApplyFitDto, FitQueryDto, ProxyFitQueryDto, SuggestedTemplateQueryDto } from './dto/fit.dto';

/**
 * How well an allowlist fits a known client: a proxy's (and applying it), a template's, and the
 * template a fit suggests. 404 when no client is named and none is written for the template; 422 when
 * the client makes no calls to the proxy's service type.
 */
@Controller('api/admin/v1')
export class ClientFitController {
  constructor(private readonly fits: ClientFitService) {}

  @ReadAccess()
  @Get('proxies/:id/fit')
  proxyFit(@Param('id', ParseUUIDPipe) id: string, @Query() query: ProxyFitQueryDto): Promise<ProxyFitResponse> {
    return this.fits.proxyFit(id, query.client, query.unusedDays);
  }

  /**
   * Grants the missing calls (sensitive ones only when named) and/or revokes exactly the listed unused
   * grants, as one `client-fit` revision.
   */
  @EditAccess()
  @Post('proxies/:id/fit/apply')
  @HttpCode(HttpStatus.OK)
  apply(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: ApplyFitDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ApplyFitResponse> {
    return this.fits.apply(id, dto, admin.actor);
  }

  /** Every template's fit in one answer: against `client`, or the client written for each template. */
  @ReadAccess()
  @Get('templates/fit')
  templatesFit(@Query() query: FitQueryDto): Promise<TemplatesFitResponse> {
    return this.fits.templatesFit(query.client);
  }

  @ReadAccess()
  @Get('templates/:id/fit')
  templateFit(@Param('id', ParseUUIDPipe) id: string, @Query() query: FitQueryDto): Promise<TemplateFitResponse> {
    return this.fits.templateFit(id, query.client);
  }

  /**
   * A download (`Content-Disposition: attachment`): the template with the fit applied, or with
   * `?serviceType=` that block alone, byte for byte the community repository's file; the client's
   * sensitive calls only with `?includeSensitive=true`.
   */
  @ReadAccess()
  @Get('templates/:id/suggested')
  async suggested(
    @Param('id', ParseUUIDPipe) id: string,
    @Query() query: SuggestedTemplateQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const { filename, body } = await this.fits.suggested(
      id,
      query.client,
      query.serviceType,
      query.includeSensitive ?? false,
    );
    response.attachment(filename);
    response.type('application/json');
    return body;
  }
}
