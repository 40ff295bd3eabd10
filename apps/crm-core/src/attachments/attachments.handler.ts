import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type AttachmentIdRequest,
  type Caller,
  type CompanyLogoIdRequest,
  type CompanyLogoRequest,
  type CompanyPinnedAttachmentsRequest,
  type ContactPhotoIdRequest,
  type ContactPhotoRequest,
  type ContactPinnedAttachmentsRequest,
  type CreateAttachmentRequest,
  type UpdateAttachmentRequest,
  type UploadFormRequest,
} from '@crm/contracts';
import { AttachmentsService } from './attachments.service';
import { StoredImagesService } from './stored-images.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class AttachmentsHandler {
  constructor(
    private readonly attachments: AttachmentsService,
    private readonly images: StoredImagesService,
  ) {}

  @MessagePattern(Subjects.AttachmentsUploadForm)
  uploadForm(@RpcCaller() caller: Caller, @ValidRequest() request: UploadFormRequest) {
    return this.attachments.uploadForm(caller, request);
  }

  @MessagePattern(Subjects.AttachmentsCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateAttachmentRequest) {
    return this.attachments.create(caller, request);
  }

  @MessagePattern(Subjects.AttachmentsUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateAttachmentRequest) {
    return this.attachments.update(caller, request);
  }

  @MessagePattern(Subjects.AttachmentsDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: AttachmentIdRequest) {
    return this.attachments.delete(caller, request);
  }

  @MessagePattern(Subjects.AttachmentsPin)
  pin(@RpcCaller() caller: Caller, @ValidRequest() request: AttachmentIdRequest) {
    return this.attachments.pin(caller, request, true);
  }

  @MessagePattern(Subjects.AttachmentsUnpin)
  unpin(@RpcCaller() caller: Caller, @ValidRequest() request: AttachmentIdRequest) {
    return this.attachments.pin(caller, request, false);
  }

  @MessagePattern(Subjects.ContactPinnedAttachments)
  contactPinned(@RpcCaller() caller: Caller, @ValidRequest() request: ContactPinnedAttachmentsRequest) {
    return this.attachments.contactPinned(caller, request);
  }

  @MessagePattern(Subjects.CompanyPinnedAttachments)
  companyPinned(@RpcCaller() caller: Caller, @ValidRequest() request: CompanyPinnedAttachmentsRequest) {
    return this.attachments.companyPinned(caller, request);
  }

  @MessagePattern(Subjects.ContactPhotoSet)
  setContactPhoto(@RpcCaller() caller: Caller, @ValidRequest() request: ContactPhotoRequest) {
    return this.images.setContactPhoto(caller, request);
  }

  @MessagePattern(Subjects.ContactPhotoDelete)
  deleteContactPhoto(@RpcCaller() caller: Caller, @ValidRequest() request: ContactPhotoIdRequest) {
    return this.images.deleteContactPhoto(caller, request);
  }

  @MessagePattern(Subjects.CompanyLogoSet)
  setCompanyLogo(@RpcCaller() caller: Caller, @ValidRequest() request: CompanyLogoRequest) {
    return this.images.setCompanyLogo(caller, request);
  }

  @MessagePattern(Subjects.CompanyLogoDelete)
  deleteCompanyLogo(@RpcCaller() caller: Caller, @ValidRequest() request: CompanyLogoIdRequest) {
    return this.images.deleteCompanyLogo(caller, request);
  }
}
