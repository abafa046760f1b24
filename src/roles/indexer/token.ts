// What the chain roles need of the USDC-T ERC-20: its Transfer event, transfer() and decimals().
import { parseAbi } from 'viem'

export const ERC20_ABI = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
  'function decimals() view returns (uint8)',
])

/** USDC-T has 6 decimals: a raw token amount is a micro-USDC amount. */
export const TOKEN_DECIMALS = 6
