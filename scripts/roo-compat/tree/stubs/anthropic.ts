// Stand-in for @anthropic-ai/sdk: Roo's condensing code uses it for types only.
export class Anthropic {}
export default Anthropic
