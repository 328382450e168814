/** The records a fresh reference implementation holds. Every documented business field is present. */
export function seedBusiness(emailField: string): Record<string, unknown> {
  return {
    name: 'Reference Barbers',
    [emailField]: 'owner@example.com',
    phoneNumber: '+14155550100',
    address: '1 Example Street, Springfield',
    currencyIso: 'USD',
    websiteUrl: 'https://www.example.com',
    timeZone: 'America/New_York',
    businessHours: [
      { dayOfWeek: 'MONDAY', startTime: '09:00', endTime: '17:00' },
      { dayOfWeek: 'TUESDAY', startTime: '09:00', endTime: '17:00' },
      { dayOfWeek: 'WEDNESDAY', startTime: '10:00', endTime: '18:00' },
    ],
    termsAndConditionsUrl: 'https://www.example.com/terms',
    privacyPolicyUrl: null,
    useGdprCompliance: true,
    instagramUrl: 'https://www.example.com/instagram',
    tikTokUrl: null,
    youTubeUrl: null,
    twitterUrl: 'https://www.example.com/twitter',
    linkedInUrl: null,
    facebookUrl: 'https://www.example.com/facebook',
  };
}

export function seedCustomers(count: number): Record<string, unknown>[] {
  const names = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald'];
  return Array.from({ length: count }, (_, i) => ({
    firstName: names[i % names.length],
    lastName: `Seed${i + 1}`,
    email: `seed${i + 1}@example.com`,
    phoneNumber: `+1415555${String(1000 + i).padStart(4, '0')}`,
  }));
}

export function seedTeamMembers(): Record<string, unknown>[] {
  return [
    { firstName: 'Maria', lastName: 'Lopez', email: 'maria@example.com', role: 'owner' },
    { firstName: 'Sam', lastName: 'Chen', email: 'sam@example.com', role: 'staff' },
    { firstName: 'Ola', lastName: 'Nordmann', email: 'ola@example.com', role: 'staff' },
  ];
}
