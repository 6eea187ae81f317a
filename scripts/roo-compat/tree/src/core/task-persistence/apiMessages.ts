// Stand-in for Roo's apiMessages module: ApiMessage is a type only.
export type ApiMessage = any
