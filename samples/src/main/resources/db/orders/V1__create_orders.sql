create table orders (
    id         bigint primary key,
    customer   varchar(100) not null,
    total_cents bigint not null
);
