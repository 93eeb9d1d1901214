/** The signed-in user as the host app knows them; `type` is the notifiable type (`User` by default). */
export interface NotificationUser {
  readonly id: string | number;
  readonly type?: string | undefined;
  readonly name?: string | undefined;
  /** The address email reaches them at, when known (a user token's `email` claim). */
  readonly email?: string | undefined;
}
