import {
  api,
  createAccount,
  createUser,
  startServices,
  type ApiResponse,
  type CreatedAccount,
  type ServicesHandle,
  type StartServicesOptions,
} from '@crm/testing';

/* eslint-disable @typescript-eslint/no-explicit-any */
/** An answer body as the tests read it. */
export type Json = any;

/** `(method, path, body?, headers?)` against /api/v3 with one user's credentials. */
export type Caller = <T = Json>(
  method: string,
  pathname: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<ApiResponse<T>>;

type AccountOptions = NonNullable<Parameters<typeof createAccount>[1]>;

export interface E2eOptions {
  /** Options of startServices, or a function that prepares them first (e.g. starts private infrastructure). */
  services?: StartServicesOptions | (() => StartServicesOptions | Promise<StartServicesOptions>);
  /** The first account, whose admin is `admin` (default: created, named Acme Inc.); false: none. */
  admin?: AccountOptions | false;
  /** A second account, another tenant: `stranger` (true: with the defaults). */
  stranger?: AccountOptions | true;
  /** A plain user of the first account: `member` (created after the accounts). */
  member?: boolean;
}

/**
 * What {@link setupE2e} starts and creates. These are handles made when the describe block is
 * declared: their fields read what beforeAll made, so destructure them at the top of the block
 * and use them in hooks and tests as the objects themselves.
 */
export interface E2e {
  readonly services: ServicesHandle;
  readonly admin: CreatedAccount;
  readonly stranger: CreatedAccount;
  readonly member: CreatedAccount;
}

/**
 * Typed request helpers over one set of services: `call(who)` is a {@link Caller} with `who`'s
 * credentials; `ok(who, method, path, body?, status = 200)` expects `status` and returns the
 * envelope's `data` (it throws with the answer otherwise).
 */
export function calls(services: Pick<ServicesHandle, 'gatewayUrl'>) {
  const call = (who: CreatedAccount): Caller => api(services, who) as Caller;
  const ok = async (who: CreatedAccount, method: string, pathname: string, body?: unknown, status = 200): Promise<Json> => {
    const res = await call(who)(method, pathname, body);
    if (res.status !== status) throw new Error(`${method} ${pathname} answered ${res.status}: ${res.text}`);
    return res.body.data;
  };
  return { call, ok };
}

/**
 * The start-up of an e2e file: in beforeAll it starts the four services (once per file) and
 * creates the accounts asked for (`admin` and `stranger` in parallel, then `member`); in afterAll
 * it stops the services. Call it at the top of the file's describe, before the file's own hooks.
 */
export function setupE2e(options: E2eOptions = {}): E2e {
  const made: { services?: ServicesHandle; admin?: CreatedAccount; stranger?: CreatedAccount; member?: CreatedAccount } = {};
  const get = <K extends keyof typeof made>(key: K): NonNullable<(typeof made)[K]> => {
    const value = made[key];
    if (!value) throw new Error(`${key} is not there: ask setupE2e for it, and read it in a hook or test (it is made in beforeAll)`);
    return value as NonNullable<(typeof made)[K]>;
  };

  beforeAll(async () => {
    const serviceOptions = typeof options.services === 'function' ? await options.services() : options.services;
    const services = (made.services = await startServices(serviceOptions));
    const [admin, stranger] = await Promise.all([
      options.admin === false ? undefined : createAccount(services, options.admin),
      options.stranger ? createAccount(services, options.stranger === true ? {} : options.stranger) : undefined,
    ]);
    Object.assign(made, { admin, stranger });
    if (options.member) made.member = await createUser(services, get('admin'));
  });

  afterAll(async () => {
    await made.services?.stopAll();
  });

  const account = (key: 'admin' | 'stranger' | 'member'): CreatedAccount => ({
    get account() {
      return get(key).account;
    },
    get user() {
      return get(key).user;
    },
  });
  const services: ServicesHandle = {
    get gatewayUrl() {
      return get('services').gatewayUrl;
    },
    get authUrl() {
      return get('services').authUrl;
    },
    get gatewayUrls() {
      return get('services').gatewayUrls;
    },
    get authUrls() {
      return get('services').authUrls;
    },
    get operatorUrl() {
      return get('services').operatorUrl;
    },
    get operatorUrls() {
      return get('services').operatorUrls;
    },
    get operatorToken() {
      return get('services').operatorToken;
    },
    get apiKeyPepper() {
      return get('services').apiKeyPepper;
    },
    get callerKeys() {
      return get('services').callerKeys;
    },
    get namespace() {
      return get('services').namespace;
    },
    get database() {
      return get('services').database;
    },
    get processes() {
      return get('services').processes;
    },
    stopAll: () => get('services').stopAll(),
  };
  return { services, admin: account('admin'), stranger: account('stranger'), member: account('member') };
}
