/** GET /bootstrap takes no input. */
export class BootstrapRequest {}
