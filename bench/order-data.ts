/** The vehicle and badge of every bench order, whichever implementation places it. */
export const VEHICLE = {
  vin: 'WVWZZZ1JZXW000001',
  plate: 'B-EN 1234',
  make: 'Bench',
  model: 'Mark I',
} as const;
export const BADGE = { type: 'green', validFrom: '2030-01-01', holder: 'Bench Runner' } as const;
