// Stand-in for Roo's BaseProvider: its default countTokens is Roo's tiktoken count (Roo's own
// src/utils/tiktoken.ts, exported from Roo at the same commit), without the worker pool.
import { tiktoken } from '../../utils/tiktoken'

export abstract class BaseProvider {
  abstract createMessage(systemPrompt: string, messages: any[], metadata?: any): any
  abstract getModel(): { id: string; info: any }
  async countTokens(content: any[]): Promise<number> {
    if (content.length === 0) return 0
    return tiktoken(content)
  }
}
