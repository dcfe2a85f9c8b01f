#if Postgres
import PostgresNIO
#endif
