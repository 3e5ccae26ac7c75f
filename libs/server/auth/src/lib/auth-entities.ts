import { AdminSessionEntity } from './entities/admin-session.entity';
import { AdminUserEntity } from './entities/admin-user.entity';
import { ApiTokenEntity } from './entities/api-token.entity';
import { SignInThrottleEntity } from './entities/sign-in-throttle.entity';

export const AUTH_ENTITIES = [AdminUserEntity, AdminSessionEntity, ApiTokenEntity, SignInThrottleEntity];
