// Stand-in for Roo's RooIgnoreController: allows every path.
export class RooIgnoreController {
  validateAccess(_path: string) {
    return true
  }
}
