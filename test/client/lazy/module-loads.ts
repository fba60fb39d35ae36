/** The modules of this folder that were evaluated, in order: proof of when a lazy import ran. */
export const moduleLoads: string[] = [];
