import * as z from 'zod/mini';
import { defineOperation } from '../../platform/http/operation';
import { commonErrors, deleted, id, listOf, listQuery, notFoundResponse } from '../../platform/http/schemas';
import { segment, segmentBody } from '../model';

const segmentParams = /* @__PURE__ */ (() => z.strictObject({ segment_id: id }))();

export const create = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createSegment',
    summary: 'Create a segment',
    tags: ['Segments'],
    auth: 'api_key',
    body: segmentBody,
    responses: { 201: { description: 'The new segment', schema: segment }, ...commonErrors },
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listSegments',
    summary: 'List segments, newest first',
    tags: ['Segments'],
    auth: 'api_key',
    query: listQuery,
    responses: { 200: { description: 'A page of segments', schema: listOf(segment) }, ...commonErrors },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getSegment',
    summary: 'Retrieve a segment',
    tags: ['Segments'],
    auth: 'api_key',
    params: segmentParams,
    responses: { 200: { description: 'The segment', schema: segment }, ...commonErrors, 404: notFoundResponse },
  }))();

export const update = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateSegment',
    summary: 'Rename a segment',
    tags: ['Segments'],
    auth: 'api_key',
    params: segmentParams,
    body: segmentBody,
    responses: { 200: { description: 'The segment', schema: segment }, ...commonErrors, 404: notFoundResponse },
  }))();

export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteSegment',
    summary: 'Delete a segment',
    description:
      "Deletes the segment and its memberships; the contacts stay. Up to 1,000 memberships go before the answer, the rest within seconds (a worker fed by the table's stream). A second delete is 404.",
    tags: ['Segments'],
    auth: 'api_key',
    params: segmentParams,
    responses: {
      200: { description: 'The segment is gone', schema: deleted('segment') },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();
