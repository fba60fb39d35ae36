/**
 * Rules on field values that the proto states in prose rather than in its types. They are applied
 * by the validators on top of the structural rules derived from the proto itself.
 */

/** A constraint on one field. */
export interface FieldRule {
  /** Smallest accepted integer. */
  readonly min?: number;
  /** Largest accepted integer. */
  readonly max?: number;
  /**
   * A `REQUIRED` string or repeated field that may be empty. By default a required string must be
   * non-empty (proto3 cannot tell an empty string from an unset one) and a required repeated field
   * must hold at least one element (spec 5.7).
   */
  readonly allowEmpty?: boolean;
}

/** Field rules by message name, then JSON field name. */
export const fieldRules: {
  readonly [message: string]: { readonly [field: string]: FieldRule } | undefined;
} = {
  // "The minimum value is 1. The maximum value is 100." (ListTasksRequest.page_size)
  ListTasksRequest: { pageSize: { min: 1, max: 100 }, historyLength: { min: 0 } },
  GetTaskRequest: { historyLength: { min: 0 } },
  SendMessageConfiguration: { historyLength: { min: 0 } },
  ListTaskPushNotificationConfigsRequest: { pageSize: { min: 0 } },
  // "MUST be set to an empty string" on the last page (spec 3.1.4). `tasks` is REQUIRED, yet a
  // listing that matches nothing must still be answerable: an empty page is valid.
  ListTasksResponse: {
    tasks: { allowEmpty: true },
    nextPageToken: { allowEmpty: true },
    pageSize: { min: 0 },
    totalSize: { min: 0 },
  },
};
