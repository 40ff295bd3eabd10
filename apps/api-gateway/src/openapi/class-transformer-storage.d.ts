// class-transformer ships this module without a declaration next to it (its types live in types/).
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
