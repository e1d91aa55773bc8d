// Interoperability test of authorization: the official TypeScript MCP SDK
// client's OAuth helpers against `toolhost serve --listen` with an auth
// block. The 401 and its resource_metadata, the Protected Resource
// Metadata (RFC 9728), the issuer's metadata (RFC 8414), then tokens from
// the issuer: by the authorization code grant with PKCE, after dynamic
// client registration (an interactive client), and by the
// client_credentials grant (a machine client); a token for another
// audience is refused; the SSE transport is served when the audience
// covers /sse.
//
// interop_test.go (TestTypeScriptClientAuth) starts the issuer
// (internal/testoidc) and the server, and passes them in:
//
//   TOOLHOST_AUTH_BASE         the server's URL (http://127.0.0.1:PORT)
//   TOOLHOST_AUTH_AUDIENCE     the auth block's audience: the URL of /mcp,
//                              or the server's URL
//   TOOLHOST_AUTH_ISSUER       the issuer's URL
//   TOOLHOST_AUTH_CLIENT_ID    a client of the client_credentials grant
//   TOOLHOST_AUTH_CLIENT_SECRET
//   TOOLHOST_AUTH_SCOPE        the scope every request needs

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { discoverOAuthServerInfo, extractWWWAuthenticateParams, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';

import { okText } from './support.mjs';

const env = (name) => {
  const v = process.env[name];
  assert.ok(v, `set ${name} (interop_test.go's TestTypeScriptClientAuth does this)`);
  return v;
};
const base = env('TOOLHOST_AUTH_BASE');
const audience = env('TOOLHOST_AUTH_AUDIENCE');
const mcpURL = base + '/mcp';
const sseURL = base + '/sse';
const issuer = env('TOOLHOST_AUTH_ISSUER');
const clientId = env('TOOLHOST_AUTH_CLIENT_ID');
const clientSecret = env('TOOLHOST_AUTH_CLIENT_SECRET');
const scope = env('TOOLHOST_AUTH_SCOPE');
// RFC 9728 3.1: the well-known path goes before the resource's path.
const prmURL = base + '/.well-known/oauth-protected-resource' + new URL(audience).pathname.replace(/\/$/, '');
const otherAudience = 'https://elsewhere.example.com/mcp';
const CALL_TIMEOUT = { timeout: 20_000 };

/** The claims of a JWT (not verified: the server does that). */
function claims(jwt) {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
}

/** An initialize request POSTed to the server, with headers added. */
function postInitialize(headers = {}) {
  return fetch(mcpURL, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

/**
 * A client connected with authProvider, or the error of its connect; the
 * caller closes it.
 */
async function connect(authProvider, { sse = false } = {}) {
  const transport = sse
    ? new SSEClientTransport(new URL(sseURL), { authProvider })
    : new StreamableHTTPClientTransport(new URL(mcpURL), { authProvider });
  const client = new Client({ name: 'toolhost-auth-interop', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** Lists the tools and calls one: what every authorized client does. */
async function useTools(client) {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['tool_0', 'tool_1']);
  const result = await client.callTool({ name: 'tool_1', arguments: { name: 'OAuth' } }, undefined, CALL_TIMEOUT);
  assert.equal(okText(result), 'tool 1 says hello OAuth x1');
}

/**
 * An interactive client's OAuthClientProvider, as an app that opens the
 * browser implements it, without the browser: it keeps what the SDK
 * gives it, and the authorization URL it would open.
 */
class InteractiveProvider {
  redirectUrl = 'http://127.0.0.1:1/callback';
  clientMetadata = {
    client_name: 'toolhost interop (interactive)',
    redirect_uris: [this.redirectUrl],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  registered = undefined;
  saved = undefined;
  verifier = undefined;
  discovery = undefined;
  authorizationUrl = undefined;

  clientInformation() { return this.registered; }
  saveClientInformation(info) { this.registered = info; }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; }
  redirectToAuthorization(url) { this.authorizationUrl = url; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  saveDiscoveryState(state) { this.discovery = state; }
  discoveryState() { return this.discovery; }
}

describe(`toolhost with an auth block (audience ${audience}) and the TypeScript SDK client's OAuth`, { timeout: 90_000 }, () => {
  test('without a token: 401 naming the protected resource metadata, which names the issuer', async () => {
    const res = await postInitialize();
    await res.body?.cancel();
    assert.equal(res.status, 401);
    const challenge = extractWWWAuthenticateParams(res);
    assert.equal(challenge.resourceMetadataUrl?.href, prmURL, `WWW-Authenticate: ${res.headers.get('WWW-Authenticate')}`);
    assert.equal(challenge.scope, scope);

    const info = await discoverOAuthServerInfo(mcpURL, { resourceMetadataUrl: challenge.resourceMetadataUrl });
    assert.equal(info.resourceMetadata?.resource, audience);
    assert.deepEqual(info.resourceMetadata?.scopes_supported, [scope]);
    assert.equal(info.authorizationServerUrl, issuer);
    assert.equal(info.authorizationServerMetadata?.issuer, issuer);
    assert.equal(info.authorizationServerMetadata?.token_endpoint, issuer + '/token');

    // Found without the header's hint too, from the server's URL alone.
    const bare = await discoverOAuthServerInfo(mcpURL);
    assert.equal(bare.resourceMetadata?.resource, audience);
    assert.equal(bare.authorizationServerUrl, issuer);
  });

  test('a client without an auth provider gets the 401 as an error', async () => {
    await assert.rejects(connect(undefined), (err) => {
      assert.ok(err instanceof StreamableHTTPError, `${err}`);
      assert.equal(err.code, 401);
      return true;
    });
  });

  test('an interactive client registers, is sent to authorize, and with the code gets the tools', async () => {
    const provider = new InteractiveProvider();
    await assert.rejects(connect(provider), (err) => {
      assert.ok(err instanceof UnauthorizedError, `UnauthorizedError, got ${err}`);
      return true;
    });
    // What the SDK found before it sent the user to the issuer.
    assert.equal(provider.discovery?.authorizationServerUrl, issuer);
    assert.equal(provider.discovery?.resourceMetadata?.resource, audience);
    assert.equal(provider.discovery?.authorizationServerMetadata?.issuer, issuer);
    assert.match(provider.registered?.client_id ?? '', /^dyn-/, 'registered by RFC 7591 dynamic client registration');
    const authz = provider.authorizationUrl;
    assert.ok(authz, 'the SDK asked to open the authorization URL');
    assert.equal(authz.origin + authz.pathname, issuer + '/authorize');
    assert.equal(authz.searchParams.get('resource'), audience, 'the token is asked for this server (RFC 8707)');
    assert.equal(authz.searchParams.get('scope'), scope, 'the scope the server asked for');
    assert.equal(authz.searchParams.get('code_challenge_method'), 'S256');

    // The user approves: the issuer redirects back with a code.
    const back = await fetch(authz, { redirect: 'manual' });
    await back.body?.cancel();
    assert.equal(back.status, 302);
    const code = new URL(back.headers.get('Location')).searchParams.get('code');
    assert.ok(code, `a code in ${back.headers.get('Location')}`);
    const finishing = new StreamableHTTPClientTransport(new URL(mcpURL), { authProvider: provider });
    await finishing.finishAuth(code);
    const tok = claims(provider.saved.access_token);
    assert.equal(tok.aud, audience);
    assert.equal(tok.scope, scope);

    const { client } = await connect(provider);
    try {
      await useTools(client);
    } finally {
      await client.close();
    }
  });

  test('a client with client credentials gets a token for this server and uses the tools', async () => {
    const provider = new ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer, scope });
    const { client } = await connect(provider);
    try {
      const tok = claims(provider.tokens().access_token);
      assert.equal(tok.aud, audience);
      assert.equal(tok.sub, clientId);
      await useTools(client);
    } finally {
      await client.close();
    }
  });

  test('a token for another audience is refused', async () => {
    // Through the SDK's flow: a provider that asks for the wrong resource.
    const provider = new ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer, scope });
    provider.validateResourceURL = async () => new URL(otherAudience);
    await assert.rejects(connect(provider), (err) => {
      assert.ok(err instanceof StreamableHTTPError, `${err}`);
      assert.equal(err.code, 401);
      return true;
    });
    const tok = provider.tokens().access_token;
    assert.equal(claims(tok).aud, otherAudience);

    // What the server answered it.
    const res = await postInitialize({ Authorization: `Bearer ${tok}` });
    const body = await res.text();
    assert.equal(res.status, 401);
    assert.equal(extractWWWAuthenticateParams(res).error, 'invalid_token');
    assert.match(body, /audience/i, body);
  });

  test('a token without the scope gets 403 insufficient_scope, which the client reads as such', async () => {
    // Asked without a scope, the token has none; the client asks again
    // with the scope the 403 names, and gives up when the answer is the same.
    const provider = new ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer });
    await assert.rejects(connect(provider), (err) => {
      assert.ok(err instanceof StreamableHTTPError, `${err}`);
      assert.equal(err.code, 403);
      assert.match(err.message, /after trying upscoping/, 'the client took the 403 for insufficient_scope');
      return true;
    });
    const res = await postInitialize({ Authorization: `Bearer ${provider.tokens().access_token}` });
    await res.body?.cancel();
    assert.equal(res.status, 403);
    assert.deepEqual({ ...extractWWWAuthenticateParams(res) }, { resourceMetadataUrl: new URL(prmURL), scope, error: 'insufficient_scope' });
  });

  // The client takes the resource of the metadata only if it covers the
  // URL it connects to (its origin, and a prefix of its path): an
  // audience of /mcp does not cover /sse, the server's origin does.
  const coversSSE = new URL(audience).pathname === '/';
  test(`over SSE, the client ${coversSSE ? 'gets a token and uses the tools' : 'refuses a resource that does not cover /sse'}`, async () => {
    const provider = new ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer, scope });
    if (!coversSSE) {
      await assert.rejects(connect(provider, { sse: true }), /does not match/);
      return;
    }
    const { client } = await connect(provider, { sse: true });
    try {
      assert.equal(claims(provider.tokens().access_token).aud, audience);
      await useTools(client);
    } finally {
      await client.close();
    }
  });
});
