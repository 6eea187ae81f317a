// Stand-in for Roo's api module: ApiHandler and its metadata are types only.
export type ApiHandler = any
export type ApiHandlerCreateMessageMetadata = any
