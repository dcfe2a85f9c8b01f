#if Postgres
public import PostgresNIO
#endif
