import type { KnownClient } from './known-client';
import autobrr from '../../data/autobrr.json';
import bazarr from '../../data/bazarr.json';
import cleanuparr from '../../data/cleanuparr.json';
import crossSeed from '../../data/cross-seed.json';
import daps from '../../data/daps.json';
import homepage from '../../data/homepage.json';
import jellyseerr from '../../data/jellyseerr.json';
import kometa from '../../data/kometa.json';
import lunasea from '../../data/lunasea.json';
import maintainerr from '../../data/maintainerr.json';
import nabarr from '../../data/nabarr.json';
import notifiarr from '../../data/notifiarr.json';
import omegabrr from '../../data/omegabrr.json';
import organizr from '../../data/organizr.json';
import overseerr from '../../data/overseerr.json';
import postarr from '../../data/postarr.json';
import prowlarr from '../../data/prowlarr.json';
import qui from '../../data/qui.json';
import recyclarr from '../../data/recyclarr.json';
import ruddarr from '../../data/ruddarr.json';
import seerr from '../../data/seerr.json';
import titlecardmaker from '../../data/titlecardmaker.json';
import unmanic from '../../data/unmanic.json';
import unpackerr from '../../data/unpackerr.json';

/**
 * Every file of `data/`, imported so that the bundler inlines them: the built server (`dist/apps/server`)
 * and the container image carry the catalogue without reading the repository. A new client's file is
 * added here too (`known-clients-data.spec.ts` checks that every file is). Their shape is checked by that
 * spec against `known-client.schema.json`.
 */
const FILES: readonly unknown[] = [
  autobrr,
  bazarr,
  cleanuparr,
  crossSeed,
  daps,
  homepage,
  jellyseerr,
  kometa,
  lunasea,
  maintainerr,
  nabarr,
  notifiarr,
  omegabrr,
  organizr,
  overseerr,
  postarr,
  prowlarr,
  qui,
  recyclarr,
  ruddarr,
  seerr,
  titlecardmaker,
  unmanic,
  unpackerr,
];

/** The catalogued clients, in the order of their ids. */
export const KNOWN_CLIENTS = FILES as readonly KnownClient[];
