-- Every step records itself, so a test can count how many times each was applied.
create table applied_steps (
    step varchar(20) not null
);
insert into applied_steps (step) values ('V1');
