import { AdminSessionEntity } from './entities/admin-session.entity';
import { AdminUserEntity } from './entities/admin-user.entity';

export const AUTH_ENTITIES = [AdminUserEntity, AdminSessionEntity];
