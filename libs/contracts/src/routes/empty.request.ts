/** Routes whose request has no fields. */
export class EmptyRequest {}
