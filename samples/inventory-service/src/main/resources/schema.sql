create table if not exists stock (
    sku       varchar(64) primary key,
    available integer     not null check (available >= 0)
);
create table if not exists reservation (
    id       bigserial   primary key,
    sku      varchar(64) not null references stock (sku),
    quantity integer     not null,
    token    bigint      not null
);
