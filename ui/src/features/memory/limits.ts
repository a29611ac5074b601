/** mem0's `GET /memories` page size (oryx-core mem0.rs LOAD_LIMIT): the number the memory and
 * migration screens quote when a full page may hide more. The decision itself (possibly_more)
 * comes from the console; only the figure for the message lives here. */
export const MEM0_LIST_LIMIT = 1000;
