import { Global, Module, type DynamicModule } from '@nestjs/common';
import { LocalStorageDriver } from './local-storage.driver';
import { S3StorageDriver } from './s3-storage.driver';
import { FileUrlSigner, StoredUploadSigner, UploadPolicySigner } from './signed-urls';
import { STORAGE_DRIVER, type StorageDriver } from './storage-driver';
import type { StorageSettings } from './storage.settings';

/** The driver STORAGE_DRIVER names, built from the validated settings. */
export function createStorageDriver(settings: StorageSettings): StorageDriver {
  if (settings.STORAGE_DRIVER === 's3') {
    return new S3StorageDriver({
      bucket: settings.S3_BUCKET,
      region: settings.S3_REGION,
      endpoint: settings.S3_ENDPOINT,
      credentials:
        settings.S3_ACCESS_KEY_ID && settings.S3_SECRET_ACCESS_KEY
          ? { accessKeyId: settings.S3_ACCESS_KEY_ID, secretAccessKey: settings.S3_SECRET_ACCESS_KEY }
          : undefined,
      forcePathStyle: settings.S3_FORCE_PATH_STYLE,
    });
  }
  return new LocalStorageDriver(settings.STORAGE_DIR, settings.PUBLIC_URL, new UploadPolicySigner(settings.STORAGE_SECRET));
}

/** Provides the storage driver (STORAGE_DRIVER), the download-link signer, the form-policy signer and the stored-upload key signer. */
@Global()
@Module({})
export class StorageModule {
  static forRoot(settings: StorageSettings): DynamicModule {
    return {
      module: StorageModule,
      providers: [
        { provide: STORAGE_DRIVER, useValue: createStorageDriver(settings) },
        {
          provide: FileUrlSigner,
          useValue: new FileUrlSigner(settings.STORAGE_SECRET, settings.PUBLIC_URL, settings.ATTACHMENT_URL_TTL_SECONDS),
        },
        { provide: UploadPolicySigner, useValue: new UploadPolicySigner(settings.STORAGE_SECRET) },
        { provide: StoredUploadSigner, useValue: new StoredUploadSigner(settings.STORAGE_SECRET) },
      ],
      exports: [STORAGE_DRIVER, FileUrlSigner, UploadPolicySigner, StoredUploadSigner],
    };
  }
}
