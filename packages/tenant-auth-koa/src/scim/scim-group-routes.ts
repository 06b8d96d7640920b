import type { Operation } from '../operations/define.js';
import { requestBody } from '../request-body.js';
import { requestContext } from '../request-context.js';
import { parseGroupFilter } from './filter.js';
import { applyGroupPatch } from './group-patch.js';
import { groupFromScim, groupReplacedFromScim, groupToScim } from './group-resource.js';
import { listResponse, parseListQuery } from './list-response.js';
import { answerScim } from './scim-answers.js';
import { directoryOf } from './scim-directory.js';
import { scimLocation } from './scim-protocol.js';
import { isExcluded, queryValue, scimOperation } from './scim-route-kit.js';

/**
 * @internal `/Groups` of `/scim/v2`: the directory's groups, whose members' roles follow the tenant's
 * group-to-role mapping (core re-derives them in the transaction of each change). `excludedAttributes=members`
 * leaves the members out of the answer, as Entra ID asks.
 */
export const SCIM_GROUP_ROUTES: readonly Operation[] = [
  scimOperation({
    id: 'scimListGroups',
    method: 'GET',
    path: '/Groups',
    summary: "The tenant's groups, filtered by displayName, one page.",
    status: 200,
    handle: async ({ ctx, settings, baseUrl }) => {
      const text = queryValue(ctx, 'filter');
      const filter = text === undefined ? undefined : parseGroupFilter(text);
      const page = parseListQuery({
        startIndex: queryValue(ctx, 'startIndex'),
        count: queryValue(ctx, 'count'),
      });
      const list = await settings.auth.listScimGroups(directoryOf(ctx), {
        ...(filter === undefined ? {} : { displayName: filter.value }),
        ...page,
      });
      const members = !isExcluded(ctx, 'members');
      const resources = list.resources.map((group) => groupToScim(group, baseUrl, { members }));
      answerScim(ctx, 200, listResponse(resources, list));
    },
  }),
  scimOperation({
    id: 'scimCreateGroup',
    method: 'POST',
    path: '/Groups',
    summary: 'Create a group with its members.',
    status: 201,
    handle: async ({ ctx, settings, baseUrl }) => {
      const fields = groupFromScim(requestBody(ctx));
      const group = await settings.auth.createScimGroup(directoryOf(ctx), fields, requestContext(ctx));
      answerScim(ctx, 201, groupToScim(group, baseUrl), scimLocation(baseUrl, 'Group', group.id));
    },
  }),
  scimOperation({
    id: 'scimGetGroup',
    method: 'GET',
    path: '/Groups/:id',
    summary: 'A group.',
    status: 200,
    handle: async ({ ctx, params, settings, baseUrl }) => {
      const group = await settings.auth.getScimGroup(directoryOf(ctx), params.id as string);
      answerScim(ctx, 200, groupToScim(group, baseUrl, { members: !isExcluded(ctx, 'members') }));
    },
  }),
  scimOperation({
    id: 'scimReplaceGroup',
    method: 'PUT',
    path: '/Groups/:id',
    summary: "Replace a group's displayName and members.",
    status: 200,
    handle: async ({ ctx, params, settings, baseUrl }) => {
      const body = requestBody(ctx);
      const group = await settings.auth.updateScimGroup(
        directoryOf(ctx),
        params.id as string,
        (current) => groupReplacedFromScim(current, body, baseUrl),
        requestContext(ctx),
      );
      answerScim(ctx, 200, groupToScim(group, baseUrl));
    },
  }),
  scimOperation({
    id: 'scimPatchGroup',
    method: 'PATCH',
    path: '/Groups/:id',
    summary: 'Change a group by a PatchOp: every operation or none.',
    status: 200,
    handle: async ({ ctx, params, settings, baseUrl }) => {
      const body = requestBody(ctx);
      const group = await settings.auth.updateScimGroup(
        directoryOf(ctx),
        params.id as string,
        (current) => applyGroupPatch(current, body, baseUrl),
        requestContext(ctx),
      );
      answerScim(ctx, 200, groupToScim(group, baseUrl));
    },
  }),
  scimOperation({
    id: 'scimDeleteGroup',
    method: 'DELETE',
    path: '/Groups/:id',
    summary: 'Delete a group; the roles of its members follow.',
    status: 204,
    handle: async ({ ctx, params, settings }) => {
      await settings.auth.deleteScimGroup(directoryOf(ctx), params.id as string, requestContext(ctx));
      answerScim(ctx, 204, undefined);
    },
  }),
];
