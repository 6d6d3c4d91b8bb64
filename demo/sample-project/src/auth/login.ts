export interface User {
  email: string;
  passwordHash: string;
}

/** Finds the user who is logging in. */
export function findUser(users: User[], email: string): User | undefined {
  return users.find((user) => user.email === email);
}
