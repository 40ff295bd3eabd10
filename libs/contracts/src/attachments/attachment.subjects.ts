/** Subjects of attachments, photos and logos (issue 13): gateway -> crm-core; spread into {@link Subjects}. */
export const AttachmentSubjects = {
  AttachmentsUploadForm: 'crm.attachments.upload_form.v1',
  AttachmentsCreate: 'crm.attachments.create.v1',
  AttachmentsUpdate: 'crm.attachments.update.v1',
  AttachmentsDelete: 'crm.attachments.delete.v1',
  AttachmentsPin: 'crm.attachments.pin.v1',
  AttachmentsUnpin: 'crm.attachments.unpin.v1',
  ContactPinnedAttachments: 'crm.contacts.pinned_attachments.v1',
  CompanyPinnedAttachments: 'crm.companies.pinned_attachments.v1',
  ContactPhotoSet: 'crm.contacts.photo.set.v1',
  ContactPhotoDelete: 'crm.contacts.photo.delete.v1',
  CompanyLogoSet: 'crm.companies.logo.set.v1',
  CompanyLogoDelete: 'crm.companies.logo.delete.v1',
} as const;
