import type { Operation } from '../operations/define.js';
import { requestBody } from '../request-body.js';
import { requestContext } from '../request-context.js';
import { parseUserFilter } from './filter.js';
import { listResponse, parseListQuery } from './list-response.js';
import { answerScim } from './scim-answers.js';
import { directoryOf } from './scim-directory.js';
import { scimLocation } from './scim-protocol.js';
import { queryValue, scimOperation } from './scim-route-kit.js';
import { applyUserPatch } from './user-patch.js';
import { userFromScim, userReplacedFromScim, userToScim } from './user-resource.js';

/**
 * @internal `/Users` of `/scim/v2` (docs/http-api.md, "SCIM 2.0 provisioning per tenant"): the
 * directory's users, through core's SCIM use cases. A `PUT` and a `PATCH` hand core the applier as the
 * `change`, which core runs on the user as its transaction reads it: all of the patch or none of it.
 */
export const SCIM_USER_ROUTES: readonly Operation[] = [
  scimOperation({
    id: 'scimListUsers',
    method: 'GET',
    path: '/Users',
    summary: "The tenant's users, filtered, one page.",
    status: 200,
    handle: async ({ ctx, settings, baseUrl }) => {
      const text = queryValue(ctx, 'filter');
      const filter = text === undefined ? undefined : parseUserFilter(text);
      const page = parseListQuery({
        startIndex: queryValue(ctx, 'startIndex'),
        count: queryValue(ctx, 'count'),
      });
      const list = await settings.auth.listScimUsers(directoryOf(ctx), {
        ...(filter === undefined ? {} : { filter: { attribute: filter.attribute, value: filter.value } }),
        ...page,
      });
      const resources = list.resources.map((user) => userToScim(user, baseUrl));
      answerScim(ctx, 200, listResponse(resources, list));
    },
  }),
  scimOperation({
    id: 'scimCreateUser',
    method: 'POST',
    path: '/Users',
    summary: 'Provision a user, or link the user of this tenant with that address.',
    status: 201,
    handle: async ({ ctx, settings, baseUrl }) => {
      const fields = userFromScim(requestBody(ctx));
      const { user } = await settings.auth.createScimUser(directoryOf(ctx), fields, requestContext(ctx));
      answerScim(ctx, 201, userToScim(user, baseUrl), scimLocation(baseUrl, 'User', user.id));
    },
  }),
  scimOperation({
    id: 'scimGetUser',
    method: 'GET',
    path: '/Users/:id',
    summary: 'A user.',
    status: 200,
    handle: async ({ ctx, params, settings, baseUrl }) => {
      const user = await settings.auth.getScimUser(directoryOf(ctx), params.id as string);
      answerScim(ctx, 200, userToScim(user, baseUrl));
    },
  }),
  scimOperation({
    id: 'scimReplaceUser',
    method: 'PUT',
    path: '/Users/:id',
    summary: 'Replace what the directory writes of a user.',
    status: 200,
    handle: async ({ ctx, params, settings, baseUrl }) => {
      const body = requestBody(ctx);
      const user = await settings.auth.updateScimUser(
        directoryOf(ctx),
        params.id as string,
        (current) => userReplacedFromScim(current, body, baseUrl),
        requestContext(ctx),
      );
      answerScim(ctx, 200, userToScim(user, baseUrl));
    },
  }),
  scimOperation({
    id: 'scimPatchUser',
    method: 'PATCH',
    path: '/Users/:id',
    summary: 'Change a user by a PatchOp: every operation or none.',
    status: 200,
    handle: async ({ ctx, params, settings, baseUrl }) => {
      const body = requestBody(ctx);
      const user = await settings.auth.updateScimUser(
        directoryOf(ctx),
        params.id as string,
        (current) => applyUserPatch(current, body, baseUrl),
        requestContext(ctx),
      );
      answerScim(ctx, 200, userToScim(user, baseUrl));
    },
  }),
  scimOperation({
    id: 'scimDeleteUser',
    method: 'DELETE',
    path: '/Users/:id',
    summary: 'Remove a user, as removing a member does.',
    status: 204,
    handle: async ({ ctx, params, settings }) => {
      await settings.auth.deleteScimUser(directoryOf(ctx), params.id as string, requestContext(ctx));
      answerScim(ctx, 204, undefined);
    },
  }),
];
